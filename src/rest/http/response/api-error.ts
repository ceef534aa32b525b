import { HttpException } from '@nestjs/common';
import { FieldErrors, Problem, RecordError } from '../../core/errors';

/** The status of each problem the lower layers report. */
const STATUS: Record<Problem, number> = {
  invalid: 400,
  'invalid-items': 422,
  'not-found': 404,
  'precondition-failed': 412,
  'too-large': 413,
};

export function statusOf(error: RecordError): number {
  return STATUS[error.problem];
}

/** An HTTP-level error, answered `{message, errors?}`: a status of its own and headers to send with it. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
    /** Members of the error body after `message` (and before `errors`): an operation's place. */
    readonly members: Record<string, unknown> = {},
  ) {
    super(message, status);
  }
}
