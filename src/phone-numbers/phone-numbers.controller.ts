import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/http/openapi/api-docs';
import { CollectionController } from '../rest/http/collection.controller';
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

@Controller(PHONE_NUMBERS.path)
export class PhoneNumbersController extends CollectionController(PHONE_NUMBERS) {
  constructor(service: PhoneNumbersService, docs: ApiDocs) {
    super(service, docs);
  }
}
