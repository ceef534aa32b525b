import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { failureOf } from './failures';
import { allowedMethods } from './methods';
import { sendError } from './respond';

/**
 * Every error leaves as `{message, errors?}` in the negotiated format, through `sendError`;
 * `failureOf` says which status, body and headers each exception gets.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    const failure = failureOf(
      exception,
      { method: req.method, allowedMethods: () => allowedMethods(req) },
      this.logger,
    );
    if (failure.status === 204) {
      res.status(204).setHeader('Allow', failure.headers!.Allow);
      res.end();
      return;
    }
    sendError(res, failure.status, failure.body, failure.headers);
  }
}
