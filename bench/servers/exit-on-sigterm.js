'use strict';
/**
 * Preloaded (`node --require`) by bench/run.js --cpu-prof into every server it profiles: a process
 * killed by a signal writes no profile, so SIGTERM ends it normally instead. Preloaded rather than
 * wrapped in `-e "require(script)"`, which left `require.main` unset and the references (started
 * only when run as the main module) exiting at once.
 */
process.on('SIGTERM', () => process.exit(0));
