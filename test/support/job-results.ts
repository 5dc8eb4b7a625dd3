/** Job results sent as a worker sends them: the helpers live in warden/testing (src/testing/job-results.ts). */
export { applyAs, heldJob } from '../../src/testing/job-results.ts';
