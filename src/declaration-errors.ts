/**
 * Imported first by main.ts. A collection's declaration is checked when its module loads
 * (defineResource), which is before main.ts runs any statement: a mistake found there stops the
 * process with its one line (`phone_numbers: bulk update is enabled but examples.updateAll is
 * missing`) rather than a stack trace. Any other uncaught error is left to Node as before.
 */
import { DeclarationError } from './rest/core/resource';

function stopOnDeclarationError(error: Error): void {
  if (error instanceof DeclarationError) {
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
  process.off('uncaughtException', stopOnDeclarationError);
  setImmediate(() => {
    throw error;
  });
}

process.on('uncaughtException', stopOnDeclarationError);
