/** Sign-in and password pages. */
import { html, href } from '../html.js';
import { MIN_PASSWORD } from '../passwords.js';
import { csrfField, notice, page, type Viewer } from './layout.js';

export function signInPage(o: { token: string; email?: string; error?: string; next?: string }): string {
  return page(
    { title: 'Sign in', viewer: null },
    html`<div class="signin">
<div class="brand">leadline</div>
<div class="card">
<h1>Sign in</h1>
${notice('error', o.error)}
<form method="post" action="${href('/login')}">
  ${csrfField(o.token)}
  ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}" ${o.email ? '' : html`autofocus`}></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required ${o.email ? html`autofocus` : ''}>
    <div class="hint">New here? Use the one-time password your operator gave you; you will then choose your own.</div></div>
  <button type="submit">Sign in</button>
</form>
</div>
</div>`,
  );
}

/** choosing a password: required after a one-time sign-in, optional later */
export function passwordPage(viewer: Viewer, o: { first: boolean; error?: string; done?: boolean }): string {
  const form = html`<form method="post" action="${href('/password')}">
  ${csrfField(viewer.csrfToken)}
  <input type="text" name="username" autocomplete="username" value="${viewer.email}" hidden>
  ${
    o.first
      ? ''
      : html`<div class="field"><label for="current">Current password</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required autofocus></div>`
  }
  <div class="field"><label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required ${o.first ? html`autofocus` : ''}>
    <div class="hint">At least ${MIN_PASSWORD} characters, and hard to guess: a few unrelated words work well.</div></div>
  <div class="field"><label for="confirm">New password again</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required></div>
  <button type="submit">${o.first ? 'Set password and continue' : 'Change password'}</button>
</form>`;
  if (o.first) {
    return page(
      { title: 'Choose a password', viewer: null },
      html`<div class="signin">
<div class="brand">leadline</div>
<div class="card">
<h1>Choose a password</h1>
<p class="muted">Signed in as ${viewer.email} (${viewer.companyName}) with a one-time password, which is now used up.</p>
${notice('error', o.error)}
${form}
</div>
<form method="post" action="${href('/logout')}">${csrfField(viewer.csrfToken)}<button type="submit" class="secondary">Sign out</button></form>
</div>`,
    );
  }
  return page(
    { title: 'Your password', section: 'account', viewer },
    html`<h1>Your password</h1>
<p class="sub">${viewer.email} · ${viewer.companyName}</p>
${notice('ok', o.done ? 'Password changed. Your other sessions were signed out.' : null)}
${notice('error', o.error)}
<div class="card">${form}</div>`,
  );
}
