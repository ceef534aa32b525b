import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

const PATH = '/api/demo/phone_numbers';

@Controller(PATH)
export class PhoneNumbersController extends CollectionController(PHONE_NUMBERS, {
  path: PATH,
  bulk: true,
  probes: true,
  paginated: true,
}) {
  constructor(service: PhoneNumbersService, docs: ApiDocs) {
    super(service, docs);
  }
}
