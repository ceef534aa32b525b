import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { EMAILS, EMAILS_ROUTES } from './emails.resource';
import { EmailsService } from './emails.service';

@Controller(EMAILS_ROUTES.path)
export class EmailsController extends CollectionController(EMAILS, EMAILS_ROUTES) {
  constructor(service: EmailsService, docs: ApiDocs) {
    super(service, docs);
  }
}
