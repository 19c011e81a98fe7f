import { useEffect, useState } from 'react';

/**
 * Moves focus to the element with an id once the form is usable again. After a failed request the
 * field to fix is still disabled (pending) when the failure is known, and a disabled element cannot
 * take focus: the move waits for the render that enables it.
 */
export function useFocusRequest(busy: boolean): (id: string) => void {
  const [target, setTarget] = useState<{ id: string } | undefined>();
  useEffect(() => {
    if (!target || busy) return;
    document.getElementById(target.id)?.focus();
    setTarget(undefined);
  }, [target, busy]);
  // A fresh object each time, so asking twice for the same element focuses it again.
  return (id: string) => setTarget({ id });
}
