import { reactRouter } from '@react-router/dev/vite';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import { customPropertyDefaultsPlugin } from './scripts/css/custom-property-defaults.ts';
import { arabicFontPlugin } from './scripts/font/arabic-font-plugin.ts';

export default defineConfig({
  plugins: [tailwindcss(), customPropertyDefaultsPlugin(), arabicFontPlugin(), reactRouter()],
  resolve: { tsconfigPaths: true },
  build: {
    // Keep the small helper chunks as separate, cacheable files; assets are hashed and immutable.
    assetsInlineLimit: 0,
  },
});
