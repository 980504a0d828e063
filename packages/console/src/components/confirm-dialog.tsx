import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/**
 * A modal confirmation (the platform's <dialog>: focus is trapped in it and
 * Escape cancels). Shown while `open`; the caller closes it from either answer.
 */
export const ConfirmDialog = ({
  open,
  title,
  confirmLabel,
  onConfirm,
  onCancel,
  children,
}: {
  readonly open: boolean;
  readonly title: string;
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly children: ComponentChildren;
}) => {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  // Closed at once, so the browser gives the focus back to the opener now, not after the answer's work has moved it on.
  const closing = (answer: () => void) => () => {
    dialog.current?.close();
    answer();
  };
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div class="actions">
        <button type="button" onClick={closing(onCancel)} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" onClick={closing(onConfirm)}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
};
