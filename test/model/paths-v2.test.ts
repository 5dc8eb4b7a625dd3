/** The generated path suite of support@2, the version new workflows start on. */
import { support, supportV2 } from '../../machines/support/index.ts';
import { definePathSuite } from './path-suite.ts';

definePathSuite({ definition: supportV2, paths: support.paths }, { engine: true, simpleOnEngine: 200 });
