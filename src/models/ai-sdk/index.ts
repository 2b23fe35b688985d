export { AiSdkModel, type AiSdkModelOptions, aiSdkModel } from './ai-sdk-model.js';
export {
  type ConfiguredProvider,
  createProviderModel,
  providerPackages,
  providerVariable,
  readConfiguredProvider,
} from './create-provider-model.js';
export type { AiSdkLanguageModel, SpecProviderOptions } from './language-model-spec.js';
