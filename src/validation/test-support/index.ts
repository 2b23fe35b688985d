export {
  applyRefundSchema,
  createRefundSchema,
  createRefundZod,
  refundReasons,
  validCreateRefund,
} from './tool-schemas.js';
