/**
 * The project's rule for text a database can hold: no NUL, no unpaired
 * surrogate. PostgreSQL refuses a NUL in any text it is sent, even only to
 * compare it ("invalid byte sequence"), and either of the two wherever text
 * travels as JSON (the batch statements' `json_to_recordset`); SQLite stores
 * both. What the API and the dashboard take is checked against the rule (a
 * 400 naming the field); text from elsewhere, such as a platform's words
 * about a call, is made to fit it, so both stores record the same thing.
 */

const STORABLE_CHAR = '[^\\u0000\\ud800-\\udfff]';

/** the rule as a JSON Schema pattern: Ajv compiles patterns with the u flag, so a surrogate pair is one code point and passes */
export const STORABLE_TEXT = `^${STORABLE_CHAR}*$`;

/** the same, at least one character */
export const STORABLE_NON_EMPTY_TEXT = `^${STORABLE_CHAR}+$`;

const STORABLE = new RegExp(STORABLE_TEXT, 'u');

export const storable = (text: string): boolean => STORABLE.test(text);

/** the text with its NULs dropped and each unpaired surrogate replaced by U+FFFD, as TextEncoder would write it */
export const toStorable = (text: string): string => (storable(text) ? text : text.replace(/\0/g, '').replace(/\p{Cs}/gu, '\uFFFD'));
