/**
 * The one module through which the constructs reach the CDK core library, so the library a user's
 * app runs on is chosen in one place and every construct extends that same copy.
 */
export {
  AssetType,
  dependable,
  Fn,
  Lazy,
  TerraformAsset,
  TerraformDataSource,
  TerraformProvider,
  TerraformResource,
  TerraformStack,
  Token,
} from 'cdktf';
export type { ITerraformDependable } from 'cdktf';
