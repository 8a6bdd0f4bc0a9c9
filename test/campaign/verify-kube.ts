/**
 * What the kube-apiserver holds of the campaign, read with its own API and never through a handler: each
 * declared Repo once with its url, bound label and identity annotation, and no other Repo of the campaign.
 */
import { ANNOTATION_REPO_IDENTITY, LABEL_REPO_BOUND } from '../../src/kube/names';
import type { KubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeExpect } from '../support/kube-http';
import { PREFIX, repos, type Variant } from './variant';

interface LiveRepo {
  readonly metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  readonly spec: { url?: string };
}

export const kubeDiffs = async (kube: KubeApiServer, v: Variant): Promise<string[]> => {
  const list = await kubeExpect<{ items: LiveRepo[] }>(kube.admin, 'GET', crPath(kube.namespace, 'repos'));
  const ours = list.items.filter((repo) => repo.metadata.name.startsWith(PREFIX));
  const declared = repos(v);
  return [
    ...ours
      .filter((repo) => !declared.some((want) => want.key === repo.metadata.name))
      .map((repo) => `Repo ${repo.metadata.name} exists, declared by no one`),
    ...declared.flatMap((want) => {
      const live = ours.find((repo) => repo.metadata.name === want.key);
      if (live === undefined) return [`Repo ${want.key} is missing`];
      const fields: Array<[string, unknown, string]> = [
        ['spec.url', live.spec.url, want.url],
        [`label ${LABEL_REPO_BOUND}`, live.metadata.labels?.[LABEL_REPO_BOUND], 'true'],
        [
          `annotation ${ANNOTATION_REPO_IDENTITY}`,
          live.metadata.annotations?.[ANNOTATION_REPO_IDENTITY],
          want.identity,
        ],
      ];
      return fields
        .filter(([, value, wanted]) => value !== wanted)
        .map(([field, value, wanted]) => `Repo ${want.key}: ${field} is ${JSON.stringify(value)}, want ${wanted}`);
    }),
  ];
};
