import { reactRouter } from '@react-router/dev/vite';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import { arabicFontPlugin } from './scripts/font/arabic-font-plugin.ts';

export default defineConfig({
  plugins: [tailwindcss(), arabicFontPlugin(), reactRouter()],
  resolve: { tsconfigPaths: true },
  build: {
    // Keep the small helper chunks as separate, cacheable files; assets are hashed and immutable.
    assetsInlineLimit: 0,
  },
});
