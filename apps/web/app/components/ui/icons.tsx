import type { ComponentProps } from 'react';
import type { IconName } from './icon-names.ts';
import spriteUrl from './icon-sprite.svg?url';

export type IconProps = Omit<ComponentProps<'svg'>, 'name'>;

/**
 * Icons as references into one cached sprite file (see scripts/make-icon-sprite.ts), with the same
 * names and props as the lucide-react components they replace: the prerendered HTML carries a short
 * <use> per icon instead of its path data. Decorative by default (aria-hidden).
 */
export function Icon({ name, width = 24, height = 24, ...props }: IconProps & { name: IconName }) {
  return (
    <svg aria-hidden="true" focusable="false" width={width} height={height} {...props}>
      <use href={`${spriteUrl}#${name}`} />
    </svg>
  );
}

export const ArrowLeft = (props: IconProps) => <Icon name="arrow-left" {...props} />;
export const ArrowRight = (props: IconProps) => <Icon name="arrow-right" {...props} />;
export const Bot = (props: IconProps) => <Icon name="bot" {...props} />;
export const BrainCircuit = (props: IconProps) => <Icon name="brain-circuit" {...props} />;
export const Briefcase = (props: IconProps) => <Icon name="briefcase" {...props} />;
export const Building2 = (props: IconProps) => <Icon name="building-complex" {...props} />;
export const ChartLine = (props: IconProps) => <Icon name="chart-line" {...props} />;
export const Check = (props: IconProps) => <Icon name="check" {...props} />;
export const CircleDollarSign = (props: IconProps) => <Icon name="circle-dollar-sign" {...props} />;
export const Coins = (props: IconProps) => <Icon name="coins" {...props} />;
export const Compass = (props: IconProps) => <Icon name="compass" {...props} />;
export const Eye = (props: IconProps) => <Icon name="eye" {...props} />;
export const Flame = (props: IconProps) => <Icon name="flame" {...props} />;
export const Globe = (props: IconProps) => <Icon name="globe" {...props} />;
export const Languages = (props: IconProps) => <Icon name="languages" {...props} />;
export const Layers = (props: IconProps) => <Icon name="layers" {...props} />;
export const LayoutDashboard = (props: IconProps) => <Icon name="layout-dashboard" {...props} />;
export const Lightbulb = (props: IconProps) => <Icon name="lightbulb" {...props} />;
export const LogOut = (props: IconProps) => <Icon name="log-out" {...props} />;
export const Mail = (props: IconProps) => <Icon name="mail" {...props} />;
export const MapPin = (props: IconProps) => <Icon name="map-pin" {...props} />;
export const Menu = (props: IconProps) => <Icon name="menu" {...props} />;
export const PenLine = (props: IconProps) => <Icon name="pen-line" {...props} />;
export const Plug = (props: IconProps) => <Icon name="plug" {...props} />;
export const Rocket = (props: IconProps) => <Icon name="rocket" {...props} />;
export const ScanSearch = (props: IconProps) => <Icon name="scan-search" {...props} />;
export const Sparkles = (props: IconProps) => <Icon name="sparkles" {...props} />;
export const Store = (props: IconProps) => <Icon name="store" {...props} />;
export const Telescope = (props: IconProps) => <Icon name="telescope" {...props} />;
export const Unplug = (props: IconProps) => <Icon name="unplug" {...props} />;
export const UserRound = (props: IconProps) => <Icon name="user-round" {...props} />;
export const Users = (props: IconProps) => <Icon name="users" {...props} />;
export const Workflow = (props: IconProps) => <Icon name="workflow" {...props} />;
export const X = (props: IconProps) => <Icon name="x" {...props} />;
