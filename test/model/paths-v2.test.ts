/** The generated path suite of support@2, the version new workflows start on. */
import { supportV2 } from '../../machines/index.ts';
import { definePathSuite } from './path-suite.ts';

definePathSuite(supportV2, { engine: true, simpleOnEngine: 200 });
