export {
  isStepFaults,
  parseStepFaults,
  type StepFault,
  type StepFaults,
  type StepPause,
  Steps,
  type StepsOptions,
  untilAborted,
} from './steps.js';
