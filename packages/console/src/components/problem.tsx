import type { FieldError, Problem } from "@sdwan-connections/core/wire";

/** A problem+json answer: its title and detail, and each field's message (those a form shows beside their field are left out). */
export const ProblemMessage = ({
  problem,
  shownBesideFields = [],
}: {
  readonly problem: Problem;
  readonly shownBesideFields?: readonly string[];
}) => {
  // A field's own errors and its parts' (`grants` holds `grants.pattern`).
  const others = (problem.errors ?? []).filter(
    (error) => !shownBesideFields.some((field) => error.field === field || error.field.startsWith(`${field}.`)),
  );
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{problem.title}</strong>
        {problem.status > 0 ? ` (${problem.status})` : ""}
      </p>
      {problem.errors === undefined ? (
        <p>{problem.detail}</p>
      ) : others.length === 0 ? (
        <p>Correct the fields marked above.</p>
      ) : null}
      {others.length > 0 ? (
        <ul>
          {others.map((error) => (
            <li key={error.field}>
              <code>{error.field}</code>: {error.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

/** The message a problem has for one field, if any. */
export const fieldMessage = (errors: readonly FieldError[] | undefined, field: string): string | undefined =>
  errors
    ?.filter((error) => error.field === field)
    .map((error) => error.message)
    .join("; ") || undefined;
