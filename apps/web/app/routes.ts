import { index, prefix, type RouteConfig, route } from '@react-router/dev/routes';

// Route modules are shared by every locale; the locale comes from the URL prefix (root.tsx).
// English lives at the root, the Arabic edition under /ar with the same files and `ar-` ids.
export default [
  index('routes/home.tsx', { id: 'en-home' }),
  route('auth', 'routes/auth.tsx', { id: 'en-auth' }),
  route('auth/forgot', 'routes/forgot-password.tsx', { id: 'en-forgot' }),
  route('auth/reset', 'routes/reset-password.tsx', { id: 'en-reset' }),
  route('account', 'routes/account.tsx', { id: 'en-account' }),
  route('privacy', 'routes/privacy.tsx', { id: 'en-privacy' }),
  ...prefix('ar', [
    index('routes/home.tsx', { id: 'ar-home' }),
    route('auth', 'routes/auth.tsx', { id: 'ar-auth' }),
    route('auth/forgot', 'routes/forgot-password.tsx', { id: 'ar-forgot' }),
    route('auth/reset', 'routes/reset-password.tsx', { id: 'ar-reset' }),
    route('account', 'routes/account.tsx', { id: 'ar-account' }),
    route('privacy', 'routes/privacy.tsx', { id: 'ar-privacy' }),
    route('*', 'routes/not-found.tsx', { id: 'ar-not-found' }),
  ]),
  route('*', 'routes/not-found.tsx', { id: 'en-not-found' }),
] satisfies RouteConfig;
