import { type ClassValue, clsx } from 'clsx';

/**
 * Joins class names (clsx: conditional classes, arrays, falsy values dropped). It does not resolve
 * Tailwind conflicts: the site's components never put two classes for the same property on one
 * element (components/ui/button.tsx: its variants are conflict-free, test/class-names.test.ts checks it with
 * tailwind-merge). It used to be tailwind-merge's `twMerge(clsx(…))`, whose first call builds its
 * class map: 15-25 ms in one piece on the main thread of the development machine, in the render of
 * the first component that used it (the navigation), on every hydrated page, which made it one of the
 * account page's long tasks (×4 under Lighthouse's CPU slowdown), for 10 KB of script (brotli).
 */
export function cn(...inputs: ClassValue[]): string {
  return clsx(inputs);
}
