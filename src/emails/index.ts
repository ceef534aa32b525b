import { defineCollection } from '../database/collection-folder';
import { EMAILS_DEMO } from './emails.demo';
import { EMAILS } from './emails.resource';

export const EMAILS_COLLECTION = defineCollection(__dirname, {
  declaration: EMAILS,
  demo: EMAILS_DEMO,
});
