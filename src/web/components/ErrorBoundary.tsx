import i18next from 'i18next';
import { Component, type ErrorInfo, Fragment, type ReactNode } from 'react';
import { Button } from 'react-aria-components';
import { AppDialog } from './Dialogs';

interface State {
  error: Error | null;
  /** Bumped on "ignore" so the children mount afresh. */
  generation: number;
}

/**
 * Spec §8: a screen crash shows a dialog offering to refresh the page or to ignore the error and go on.
 * It stands outside the i18n provider on purpose (it must work when anything inside fails), so it reads
 * i18next directly.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null, generation: 0 };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('screen crashed', error, info.componentStack);
  }

  private ignore = () => this.setState((state) => ({ error: null, generation: state.generation + 1 }));

  override render() {
    const { error, generation } = this.state;
    if (!error) return <Fragment key={generation}>{this.props.children}</Fragment>;
    const t = i18next.t.bind(i18next);
    return (
      <AppDialog isOpen onOpenChange={() => this.ignore()} title={t('crash.title')} role="alertdialog" dismissable={false}>
        <p className="dialog-body">{t('crash.message')}</p>
        <div className="dialog-actions">
          <Button className="btn btn-secondary" onPress={this.ignore}>
            {t('crash.ignore')}
          </Button>
          <Button className="btn btn-primary" onPress={() => window.location.reload()} autoFocus>
            {t('crash.refresh')}
          </Button>
        </div>
      </AppDialog>
    );
  }
}
