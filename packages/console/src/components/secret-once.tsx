import { useEffect, useRef, useState } from "preact/hooks";
import { focusHeading } from "../focus.js";

/**
 * A secret the service shows once (a service token, a webhook's signing secret): in a read-only text area, selected, with
 * a Copy button, until **Done** forgets it. The page holds it only while this is shown.
 */
export const SecretOnce = ({
  label,
  secret,
  onDone,
}: {
  readonly label: string;
  readonly secret: string;
  readonly onDone: () => void;
}) => {
  const field = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | undefined>(undefined);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, [secret]);
  const copy = (): void => {
    field.current?.select();
    // The clipboard is there in a secure context (https:, or the loopback address); else the text is selected.
    (navigator.clipboard?.writeText(secret) ?? Promise.reject(new Error("no clipboard"))).then(
      () => setCopied("Copied."),
      () => setCopied("The browser does not let the page copy: the text is selected, copy it yourself."),
    );
  };
  return (
    <section class="secret" aria-label={label}>
      <h2>{label}</h2>
      <p>
        <strong>Copy it now: you won't see it again.</strong> The service keeps only what checks it, never the secret
        itself.
      </p>
      <div class="secret-value">
        <label for="secret" class="visually-hidden">
          {label}
        </label>
        {/* A text area, so that the whole secret shows on a phone too (wrapped), not the start of it. */}
        <textarea id="secret" ref={field} readOnly value={secret} rows={2} spellcheck={false} autocomplete="off" />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      {copied === undefined ? null : (
        <p class="notice" role="status">
          {copied}
        </p>
      )}
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => {
            onDone();
            focusHeading(); // this panel, and so the focused button, goes
          }}
        >
          Done: I copied it
        </button>
      </div>
    </section>
  );
};
