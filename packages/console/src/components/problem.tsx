import type { FieldError, Problem } from "@sdwan-connections/core/wire";

/** A problem+json answer: its title and detail, and each field's message (those a form shows beside their field are left out). */
export const ProblemMessage = ({
  problem,
  shownBesideFields = [],
}: {
  readonly problem: Problem;
  readonly shownBesideFields?: readonly string[];
}) => {
  const others = (problem.errors ?? []).filter(
    (error) => !shownBesideFields.some((field) => partOf(error.field, field) !== undefined),
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

/** Where `errorField` lies in `field`: "" for the field itself, `pattern` for `grants.pattern` in `grants`, else undefined. */
const partOf = (errorField: string, field: string): string | undefined =>
  errorField === field ? "" : errorField.startsWith(`${field}.`) ? errorField.slice(field.length + 1) : undefined;

/** The message a problem has for one field (and its parts': `pattern: …` for `grants.pattern`), if any. */
export const fieldMessage = (errors: readonly FieldError[] | undefined, field: string): string | undefined =>
  errors
    ?.flatMap((error) => {
      const part = partOf(error.field, field);
      return part === undefined ? [] : [part === "" ? error.message : `${part}: ${error.message}`];
    })
    .join("; ") || undefined;
