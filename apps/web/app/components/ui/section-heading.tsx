import { cn } from '~/lib/utils.ts';

export type SectionHeadingProps = {
  id: string;
  eyebrow: string;
  title: string;
  intro?: string;
  tone?: 'light' | 'dark';
  className?: string;
};

/** Eyebrow + heading + intro used at the top of every home-page section. */
export function SectionHeading({
  id,
  eyebrow,
  title,
  intro,
  tone = 'light',
  className,
}: SectionHeadingProps) {
  const dark = tone === 'dark';
  return (
    <div data-slot="section-heading" className={cn('max-w-3xl', className)}>
      <p
        className={cn(
          'text-sm font-bold tracking-wide uppercase',
          dark ? 'text-saffron-300' : 'text-oasis-700',
        )}
      >
        {eyebrow}
      </p>
      <h2
        id={id}
        className={cn(
          'mt-3 text-3xl font-bold tracking-tight text-balance sm:text-4xl',
          dark ? 'text-white' : 'text-ink',
        )}
      >
        {title}
      </h2>
      {intro ? (
        <p className={cn('mt-4 text-lg leading-relaxed', dark ? 'text-oasis-100' : 'text-muted')}>{intro}</p>
      ) : null}
    </div>
  );
}
