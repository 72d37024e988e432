/**
 * The project's rule for text a database can hold (STORABLE_TEXT in
 * src/leads/schemas.ts): no NUL, no unpaired surrogate. PostgreSQL refuses a
 * NUL in any text it is sent, even only to compare it ("invalid byte
 * sequence"), where SQLite stores it: so the dashboard checks what people
 * type and what URLs carry before any query, and both databases answer alike.
 */
import { STORABLE_TEXT } from '../leads/schemas.js';

const STORABLE = new RegExp(STORABLE_TEXT, 'u');

export const storable = (text: string): boolean => STORABLE.test(text);
