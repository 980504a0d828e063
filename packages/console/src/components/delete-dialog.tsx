import { ConfirmDialog } from "./confirm-dialog.js";

/** The confirmation before a connection is deleted (shown while `alias` is set). */
export const DeleteDialog = ({
  alias,
  onConfirm,
  onCancel,
}: {
  readonly alias: string | undefined;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) => (
  <ConfirmDialog
    open={alias !== undefined}
    title="Delete the connection?"
    confirmLabel="Delete"
    onCancel={onCancel}
    onConfirm={onConfirm}
  >
    <p>
      <strong>{alias}</strong> and its stored key are deleted. This cannot be undone.
    </p>
  </ConfirmDialog>
);
