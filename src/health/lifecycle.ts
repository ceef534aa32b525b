import { Injectable } from '@nestjs/common';

/** Where the process is in its life: once `draining`, readiness answers 503. */
@Injectable()
export class Lifecycle {
  draining = false;
}
