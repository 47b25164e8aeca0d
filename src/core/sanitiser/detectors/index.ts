/** Every built-in detector, in the order they run (the order does not change the result). */
import type { Detector } from '../detector.js';
import { assignmentDetector } from './assignments/detector.js';
import { authorizationHeaderDetector } from './authorization-headers.js';
import { alphanumericIdDetector, ibanDetector, ipv6Detector } from './bank-and-ids.js';
import { cliUserCredentialDetector } from './cli-user-credentials.js';
import { emailDetector } from './email.js';
import { numberDetector } from './numbers.js';
import { providerTokenDetector, shapedTokenDetector } from './provider-tokens.js';
import { hexPrivateKeyDetector, jwtDetector, passwordHashDetector, privateKeyDetector } from './structured-secrets.js';
import { toolCredentialDetector } from './tool-credentials.js';
import { urlDetector } from './urls.js';

/**
 * Detectors with pattern triggers are listed most specific first: the prefilter's alternation
 * takes their patterns in this order (see prefilter.ts).
 */
export const BUILT_IN_DETECTORS: readonly Detector[] = [
  shapedTokenDetector,
  alphanumericIdDetector,
  ibanDetector,
  ipv6Detector,
  numberDetector,
  privateKeyDetector,
  providerTokenDetector,
  jwtDetector,
  passwordHashDetector,
  hexPrivateKeyDetector,
  urlDetector,
  emailDetector,
  authorizationHeaderDetector,
  cliUserCredentialDetector,
  toolCredentialDetector,
  assignmentDetector,
];
