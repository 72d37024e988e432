/** What every row checks before it times anything. */
export async function fetchText(url, init) {
  const res = await fetch(url, init);
  return { status: res.status, text: await res.text() };
}

export function check(label, ok, detail) {
  if (!ok) throw new Error(`${label}: ${detail}`);
}
