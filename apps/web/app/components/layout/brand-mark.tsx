/**
 * The logo mark: a sprouting stem rising out of a rounded tile (نماء means growth). `className` replaces
 * the default size (`size-8`).
 */
export function BrandMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false" className={className ?? 'size-8'}>
      <rect width="32" height="32" rx="9" fill="#0b3d2e" />
      <path d="M16 25V14" stroke="#f2b441" strokeWidth="2.6" strokeLinecap="round" />
      <path d="M16 17c0-4.4 3-7 7.5-7-.2 4.5-3 7-7.5 7Z" fill="#7fd1b0" />
      <path d="M16 20c0-3.6-2.6-5.8-6.5-5.8.2 3.7 2.6 5.8 6.5 5.8Z" fill="#1f9e72" />
    </svg>
  );
}
