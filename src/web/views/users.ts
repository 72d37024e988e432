/** Company settings → Users: who can sign in, adding one, resetting a password, removing one. */
import type { IssuedPassword } from '../accounts.js';
import { html, href, seg } from '../html.js';
import { settingsTabs } from './keys.js';
import { badge, confirmPage, csrfField, notice, page, type Viewer, when } from './layout.js';

interface User {
  userId: string;
  email: string;
  createdAt: string;
  passwordSet: boolean;
}

const DONE: Record<string, string> = {
  removed: 'The user was removed and signed out everywhere.',
};

export function usersPage(
  v: Viewer,
  o: { users: readonly User[]; error?: string; refused?: string; email?: string; done?: string },
): string {
  const last = o.users.length === 1;
  const rows = o.users.map(
    (u) => html`<tr>
  <td data-label="Email">${u.email}${u.email === v.email ? html` <span class="muted">(you)</span>` : ''}<div class="muted mono">${u.userId}</div></td>
  <td data-label="Created">${when(Date.parse(u.createdAt))}</td>
  <td data-label="Password">${u.passwordSet ? badge('set') : html`<span class="muted">awaiting first sign-in</span>`}</td>
  <td data-label="Action"><a class="button secondary small" href="${href(`/settings/users/${seg(u.userId)}/reset`)}">Reset password…</a>
    ${last ? html`<span class="muted">the last user cannot be removed</span>` : html`<a class="button secondary small" href="${href(`/settings/users/${seg(u.userId)}/remove`)}">Remove…</a>`}</td>
</tr>`,
  );
  return page(
    { title: 'Users', section: 'settings', viewer: v },
    html`<h1>Company settings</h1>
<p class="sub">${v.companyName}</p>
${settingsTabs('users')}
${notice('ok', o.done ? DONE[o.done] : null)}
${notice('error', o.refused)}
<p>People who can sign in to this dashboard. Each sees only ${v.companyName}.</p>
<table class="stack">
<thead><tr><th>Email</th><th>Created</th><th>Password</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>
<div class="card" id="add">
<h2>Add a user</h2>
${notice('error', o.error)}
<form method="post" action="${href('/settings/users')}">
  ${csrfField(v.csrfToken)}
  <div class="field"><label for="user-email">Email</label>
    <input id="user-email" name="email" type="email" required maxlength="254" value="${o.email ?? ''}" autocomplete="off">
    <div class="hint">They get a one-time password, shown to you once; at their first sign-in they choose their own.</div></div>
  <button type="submit">Add user</button>
</form>
</div>`,
  );
}

/** the only time a one-time password is shown */
export function oneTimePasswordPage(v: Viewer, issued: IssuedPassword, signInUrl: string, o: { reset: boolean }): string {
  const title = o.reset ? 'Password reset' : 'User added';
  return page(
    { title, section: 'settings', viewer: v },
    html`<h1>${title}</h1>
<p class="sub">${issued.email}</p>
<div class="notice warn" role="alert">
  <p><strong>Pass this one-time password on now. It is shown this once.</strong></p>
  <p>It works for one sign-in until ${when(Date.parse(issued.expiresAt))}; the user then chooses a password.${o.reset ? ' Their old password no longer works and their sessions have ended.' : ''}</p>
</div>
<div class="card">
  <div class="secret">
    <code id="otp-value">${issued.oneTimePassword}</code>
    <button type="button" data-copy="otp-value" data-status="copy-status" hidden>Copy</button>
  </div>
  <p id="copy-status" class="muted" role="status"></p>
  <p>Sign in at <a href="${signInUrl}">${signInUrl}</a></p>
  <a class="button secondary" href="${href('/settings/users')}">Done: back to users</a>
</div>`,
  );
}

export function resetUserPage(v: Viewer, u: User): string {
  return confirmPage(v, {
    title: 'Reset password',
    section: 'settings',
    question: html`<p>Reset the password of <strong>${u.email}</strong>?</p>
<p>Their password stops working at once and they are signed out everywhere. You get a one-time password to pass on.</p>`,
    action: href(`/settings/users/${seg(u.userId)}/reset`),
    button: 'Reset password',
    cancel: href('/settings/users'),
  });
}

export function removeUserPage(v: Viewer, u: User): string {
  return confirmPage(v, {
    title: 'Remove user',
    section: 'settings',
    question: html`<p>Remove <strong>${u.email}</strong>?</p>
<p>They are signed out everywhere and can no longer sign in. Keys and campaigns are not touched. This cannot be undone
  (add them again to give them access).</p>`,
    action: href(`/settings/users/${seg(u.userId)}/remove`),
    button: 'Remove user',
    cancel: href('/settings/users'),
  });
}
