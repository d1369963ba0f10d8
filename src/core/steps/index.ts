export {
  isStepFaults,
  parseStepFaults,
  STAGED_TREE_STEPS,
  type StagedTreeStep,
  type StepFault,
  type StepFaults,
  type StepPause,
  Steps,
  type StepsOptions,
  untilAborted,
} from './steps.js';
