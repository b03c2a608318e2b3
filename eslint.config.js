import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'soak/results/**', 'clients/*/dist/**'],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/config.',
        },
      ],
    },
  },
  {
    // The shared folder is feature-free: it may not import a feature or a composition root.
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(modules|app)(/|$)',
              message:
                'src/platform is shared and feature-free: it may not import src/modules or src/app. Take what it needs as a parameter or by injection.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/config/**', 'test/**', 'bench/**', 'soak/**', 'ormconfig.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
