/**
 * The dashboard's one script, served as a file so pages work under a strict
 * Content-Security-Policy (no inline scripts). Pages work without it; it adds
 * the copy button next to a key shown once.
 */
export const SCRIPT = `'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const text = source.textContent.trim();
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      // No clipboard API (plain http on a remote host): select the text so Ctrl+C works.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    const status = document.getElementById(button.dataset.status || '');
    if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (⌘C) to copy.';
  });
}
`;
