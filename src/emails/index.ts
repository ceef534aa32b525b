import type { Collection } from '../database/collection-folder';
import { EMAILS_DEMO } from './emails.demo';
import { EmailsModule } from './emails.module';
import { EMAILS } from './emails.resource';

export const EMAILS_COLLECTION: Collection = {
  module: EmailsModule,
  declaration: EMAILS,
  demo: EMAILS_DEMO,
};
