/**
 * Every ops test and hook starts or stops server processes: each gets PROCESS_TIMEOUT
 * (setupFilesAfterEnv in jest.config.js), never Jest's default of 5 s, and every file ends by
 * stopping the servers it started and removing its scratch folders.
 */
import { cleanup, PROCESS_TIMEOUT } from './process';

jest.setTimeout(PROCESS_TIMEOUT);

afterAll(cleanup);
