import { toast } from 'sonner';

/** Spec §8: failures are a destructive toast titled "Error" with the message as its text. */
export function notifyError(title: string, message: string): void {
  toast.error(title, { description: message, className: 'toast-destructive' });
}

export function notifySuccess(title: string, message: string): void {
  toast.success(title, { description: message });
}
