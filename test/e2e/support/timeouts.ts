/**
 * Every e2e test and hook gets 30 s (setupFilesAfterEnv in jest.config.js), not Jest's default
 * of 5 s: the app answers in milliseconds, but on a loaded machine (two cores shared with other
 * work, MySQL among it) a test of many requests can take seconds. Tests that need longer say so.
 */
jest.setTimeout(30_000);
