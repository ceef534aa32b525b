import { HttpException } from '@nestjs/common';

export type FieldErrors = Record<string, string[]>;

/** An error with the body of CONTRACT §5: a message and, for validation, errors by field. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly errors?: FieldErrors | (FieldErrors | null)[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }

  static notFound(label: string, id: string | number): ApiError {
    return new ApiError(404, `${label} ${id} not found.`);
  }
}
