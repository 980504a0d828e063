/** Where the focus goes after a page change, the skip link or a removal: the page's heading, where reading starts. */
export const focusHeading = (): void => document.querySelector<HTMLElement>("main h1")?.focus();

/**
 * After a write that reads its list again: a focus on a row's button (the dialog gives it back there, and the row may
 * go) or already lost goes to the page's heading.
 */
export const focusHeadingFromRow = (): void => {
  const active = document.activeElement;
  if (active === null || active === document.body || active.closest("td.actions") !== null) focusHeading();
};

/** Where the focus goes after a refusal: the first field it marks invalid (none marked: it stays). */
export const focusFirstInvalid = (form: HTMLFormElement | null): void =>
  form?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
