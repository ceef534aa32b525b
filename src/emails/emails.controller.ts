import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/http/openapi/api-docs';
import { CollectionController } from '../rest/http/collection.controller';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

@Controller(EMAILS.path)
export class EmailsController extends CollectionController(EMAILS) {
  constructor(service: EmailsService, docs: ApiDocs) {
    super(service, docs);
  }
}
