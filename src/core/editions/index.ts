export {
  STARTER_EDITION_FACTS,
  STARTER_EDITION_ORDER,
  type StarterEditionFacts,
  type StarterEditionId,
  type StarterProjectPath,
  starterProjectPath,
} from './catalogue.js';
