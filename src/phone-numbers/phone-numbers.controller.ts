import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { PHONE_NUMBERS, PHONE_NUMBERS_ROUTES } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

@Controller(PHONE_NUMBERS_ROUTES.path)
export class PhoneNumbersController extends CollectionController(
  PHONE_NUMBERS,
  PHONE_NUMBERS_ROUTES,
) {
  constructor(service: PhoneNumbersService, docs: ApiDocs) {
    super(service, docs);
  }
}
