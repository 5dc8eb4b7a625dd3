/** The generated path suite of support@1: frozen, and still running every workflow started on it. */
import { supportV1 } from '../../machines/index.ts';
import { definePathSuite } from './path-suite.ts';

definePathSuite(supportV1, { simpleOnEngine: 0 });
