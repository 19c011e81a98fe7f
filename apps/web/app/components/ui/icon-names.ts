/**
 * Every icon the site shows (Lucide names). scripts/make-icon-sprite.ts turns this list into
 * icon-sprite.svg; a unit test keeps the two in sync.
 */
export const iconNames = [
  'arrow-left',
  'arrow-right',
  'bot',
  'brain-circuit',
  'briefcase',
  'building-complex',
  'chart-line',
  'check',
  'circle-dollar-sign',
  'coins',
  'compass',
  'eye',
  'flame',
  'globe',
  'languages',
  'layers',
  'layout-dashboard',
  'lightbulb',
  'log-out',
  'mail',
  'map-pin',
  'menu',
  'pen-line',
  'plug',
  'rocket',
  'scan-search',
  'sparkles',
  'store',
  'telescope',
  'unplug',
  'user-round',
  'users',
  'workflow',
  'x',
] as const;

export type IconName = (typeof iconNames)[number];
