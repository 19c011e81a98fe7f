import { index, type RouteConfig, route } from '@react-router/dev/routes';

// Route modules are shared by every locale; the locale comes from the URL prefix (root.tsx).
// The Arabic edition adds `...prefix('ar', [...])` with the same files and `ar-` ids.
export default [
  index('routes/home.tsx', { id: 'en-home' }),
  route('auth', 'routes/auth.tsx', { id: 'en-auth' }),
  route('*', 'routes/not-found.tsx', { id: 'en-not-found' }),
] satisfies RouteConfig;
