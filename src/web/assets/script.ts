/**
 * The dashboard's one script, served as a file so pages work under a strict
 * Content-Security-Policy (no inline scripts). Pages work without it; it adds
 * the copy button next to a key shown once, and refreshes a page marked
 * data-refresh (the overview) in place, without a reload.
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

// A page whose <main> has data-refresh="N" fetches itself every N seconds and swaps in the new
// <main>: no reload, no lost scroll position. A hidden tab skips its turn; a redirect (the session
// ended) or an error leaves the page as it is.
const live = document.querySelector('main[data-refresh]');
if (live) {
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!res.ok || res.redirected) return;
      const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('main');
      if (next) live.replaceChildren(...next.childNodes);
    } catch {
      // offline for a moment: try again at the next turn
    }
  }, Number(live.dataset.refresh) * 1000);
}
`;
