import { describe, expect, it } from 'vitest';
import { inlineCustomPropertyDefaults } from './custom-property-defaults.ts';

const tailwindOutput =
  '@layer properties{@supports (((-webkit-hyphens:none)) and (not (margin-trim:inline))) or ((-moz-orient:inline) and (not (color:rgb(from red r g b)))){*,:before,:after,::backdrop{--tw-border-style:solid;--tw-shadow:0 0 #0000}}}' +
  '@layer utilities{.border{border-style:var(--tw-border-style);border-width:1px}@supports (color:color-mix(in lab,red,red)){.x{color:red}}}' +
  '@property --tw-border-style{syntax:"*";inherits:false;initial-value:solid}@property --tw-shadow{syntax:"*";inherits:false;initial-value:0 0 #0000}';

describe('inlineCustomPropertyDefaults', () => {
  it('keeps one unconditional copy of the defaults and drops the @property rules', () => {
    const out = inlineCustomPropertyDefaults(tailwindOutput);
    expect(out).not.toContain('@property');
    expect(out).toContain(
      '@layer properties{*,:before,:after,::backdrop{--tw-border-style:solid;--tw-shadow:0 0 #0000}}',
    );
    // Other rules, including unrelated @supports blocks, are untouched.
    expect(out).toContain('@supports (color:color-mix(in lab,red,red)){.x{color:red}}');
    expect(out).toContain('.border{border-style:var(--tw-border-style);border-width:1px}');
  });

  it('leaves a sheet without @property rules alone and fails loudly on an unknown shape', () => {
    expect(inlineCustomPropertyDefaults('.a{color:red}')).toBe('.a{color:red}');
    expect(() => inlineCustomPropertyDefaults('@property --tw-x{syntax:"*";inherits:false}')).toThrow(
      /changed shape/,
    );
  });
});
