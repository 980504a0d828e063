/** Where the focus goes after a page change, the skip link or a removal: the page's heading, where reading starts. */
export const focusHeading = (): void => document.querySelector<HTMLElement>("main h1")?.focus();

/** Where the focus goes after a refusal: the first field it marks invalid (none marked: it stays). */
export const focusFirstInvalid = (form: HTMLFormElement | null): void =>
  form?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
