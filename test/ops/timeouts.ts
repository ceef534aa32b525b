/**
 * Every ops test and hook starts or stops server processes: each gets PROCESS_TIMEOUT
 * (setupFilesAfterEnv in jest.config.js), never Jest's default of 5 s, whether or not its file
 * says so itself.
 */
import { PROCESS_TIMEOUT } from './process';

jest.setTimeout(PROCESS_TIMEOUT);
