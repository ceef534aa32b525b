import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

const PATH = '/api/demo/emails';

@Controller(PATH)
export class EmailsController extends CollectionController(EMAILS, {
  path: PATH,
  bulk: true,
  probes: true,
  paginated: true,
}) {
  constructor(service: EmailsService, docs: ApiDocs) {
    super(service, docs);
  }
}
