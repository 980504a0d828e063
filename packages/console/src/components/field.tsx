import type { Problem } from "@sdwan-connections/core/wire";
import { fieldMessage } from "./problem.js";

/**
 * A form field with its label, hint and the message a problem+json answer has for it (beside it, `aria-invalid`,
 * `aria-describedby`): an input, or a select of `options` when given.
 */
export const Field = ({
  name,
  label,
  hint,
  problem,
  options,
  ...input
}: {
  readonly name: string;
  readonly label: string;
  readonly hint?: string;
  readonly problem: Problem | undefined;
  readonly options?: readonly string[];
} & Record<string, unknown>) => {
  const message = fieldMessage(problem?.errors, name);
  const described = [hint === undefined ? "" : `${name}-hint`, message === undefined ? "" : `${name}-error`]
    .filter(Boolean)
    .join(" ");
  const control = {
    id: name,
    name,
    "aria-invalid": message !== undefined,
    "aria-describedby": described || undefined,
    ...input,
  };
  return (
    <div class="field">
      <label for={name}>{label}</label>
      {options === undefined ? (
        <input {...control} />
      ) : (
        <select {...control}>
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      )}
      {hint === undefined ? null : (
        <p class="hint" id={`${name}-hint`}>
          {hint}
        </p>
      )}
      {message === undefined ? null : (
        <p class="field-error" id={`${name}-error`}>
          {message}
        </p>
      )}
    </div>
  );
};
