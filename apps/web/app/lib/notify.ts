// Toasts (spec §8) without paying for the toast library up front: sonner is imported, and the
// <Toaster> host mounted (root.tsx), only when the first toast is shown. sonner replays toasts created
// before its host subscribed, so nothing shown during that short load is lost.

let requested = false;
const listeners = new Set<() => void>();

/** For `useSyncExternalStore` in the root layout: has any toast been requested on this page? */
export function subscribeToToasterRequest(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function isToasterRequested(): boolean {
  return requested;
}

function loadToast() {
  if (!requested) {
    requested = true;
    for (const listener of listeners) listener();
  }
  return import('sonner').then((module) => module.toast);
}

/** Spec §8: failures are a destructive toast titled "Error" with the message as its text. */
export function notifyError(title: string, message: string): void {
  void loadToast().then((toast) =>
    toast.error(title, { description: message, className: 'toast-destructive' }),
  );
}

export function notifySuccess(title: string, message: string): void {
  void loadToast().then((toast) => toast.success(title, { description: message }));
}
