import i18next from 'i18next';
import { Component, type ComponentProps, type ErrorInfo, Fragment, lazy, type ReactNode, Suspense } from 'react';
import { Button } from 'react-aria-components';
import type { AppDialog as ModalDialog } from './Dialogs';

type DialogProps = ComponentProps<typeof ModalDialog>;

/** The crash dialog's frame while the modal's code loads, or if it cannot be loaded: the same content, not modal. */
function PlainDialog({ title, children }: DialogProps) {
  return (
    <div className="modal-overlay">
      <div className="modal">
        <div role="alertdialog" aria-labelledby="crash-dialog-title" className="dialog">
          <h2 id="crash-dialog-title" className="dialog-title">
            {title}
          </h2>
          {children}
        </div>
      </div>
    </div>
  );
}

/** The modal's code loads only when a screen has crashed: the login page does not carry it. */
const AppDialog = lazy(() =>
  import('./Dialogs').then(
    (module) => ({ default: module.AppDialog }),
    () => ({ default: PlainDialog }),
  ),
);

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
    const content = (
      <>
        <p className="dialog-body">{t('crash.message')}</p>
        <div className="dialog-actions">
          <Button className="btn btn-secondary" onPress={this.ignore}>
            {t('crash.ignore')}
          </Button>
          <Button className="btn btn-primary" onPress={() => window.location.reload()} autoFocus>
            {t('crash.refresh')}
          </Button>
        </div>
      </>
    );
    return (
      <Suspense fallback={<PlainDialog isOpen onOpenChange={this.ignore} title={t('crash.title')}>{content}</PlainDialog>}>
        <AppDialog isOpen onOpenChange={() => this.ignore()} title={t('crash.title')} role="alertdialog" dismissable={false}>
          {content}
        </AppDialog>
      </Suspense>
    );
  }
}
