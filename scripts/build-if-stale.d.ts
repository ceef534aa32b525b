/** Types of scripts/build-if-stale.js, for the TypeScript tests that use it. */
export function staleReason(root: string): string | undefined;
