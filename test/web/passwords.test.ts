/** Password strength: zxcvbn-ts score 3 or more, with its own advice when refused. Twelve identical letters used to pass. */
import { describe, expect, it } from 'vitest';
import { generateOneTimePassword, MAX_PASSWORD, passwordProblem } from '../../src/web/passwords.js';
import { PASSWORD } from './support.js';

describe('passwordProblem', () => {
  it.each([
    ['aaaaaaaaaaaa', 'Repeated characters like "aaa" are easy to guess.'],
    ['abcdefghijkl', 'Common character sequences like "abc" are easy to guess.'],
    ['password1234', 'This is similar to a commonly used password.'],
    ['123456789012', 'This is a commonly used password.'],
    ['qwertyuiop12', 'This is similar to a commonly used password.'],
  ])('%s is refused, saying why', async (password, warning) => {
    const problem = await passwordProblem(password);
    expect(problem).toContain('This password is too easy to guess.');
    expect(problem).toContain(warning);
    expect(problem).toContain('A few unrelated words make a strong one.');
  });

  it("the user's own email counts as a guessable word", async () => {
    expect(await passwordProblem('ada@example.com-2024')).toBeNull();
    expect(await passwordProblem('ada@example.com-2024', ['ada@example.com'])).toContain('This password is too easy to guess.');
  });

  it.each([
    [PASSWORD],
    ['glacier mango trombone velvet'],
    ['a long and private passphrase'],
    ['another long passphrase'],
    [generateOneTimePassword()],
  ])('%s is accepted', async (password) => {
    expect(await passwordProblem(password, ['someone@example.com'])).toBeNull();
  });

  it('keeps the length rules, checked first', async () => {
    expect(await passwordProblem('Xy7$kQ!')).toBe('Use at least 12 characters.');
    expect(await passwordProblem('glacier '.repeat(40))).toBe(`Use at most ${MAX_PASSWORD} characters.`);
  });
});
